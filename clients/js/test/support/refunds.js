// The refund tool of the approval tests, in a module a test's agent process can import too.

export const REFUND = { order: 1234, amount: 25 };
export const REFUND_DESCRIPTION = "Refund part of an order to the customer's card.";

const refundParameters = {
  type: 'object',
  properties: { order: { type: 'integer' }, amount: { type: 'number' } },
  required: ['order', 'amount'],
  additionalProperties: false,
};

/** A refund tool's options that record each refund in `refunds`. */
export function refundTool(refunds) {
  return {
    name: 'issue_refund',
    description: REFUND_DESCRIPTION,
    parameters: refundParameters,
    strict: true,
    execute: async ({ order, amount }) => {
      refunds.push([order, amount]);
      return `Refunded ${amount} on order ${order}.`;
    },
  };
}

"""The project's model prices, kept as code over the API (docs/insights.md, "Cost")."""

from decimal import Decimal

from django.db import transaction

from historyhub.audit import log as audit_log
from historyhub.insights.models import Price
from historyhub.lib.errors import InvalidInput

MAX_PRICES = 500
MAX_PER_MILLION = Decimal("99999999")


class Audited:
    PRICES_SET = "prices.set"


def listing(project_id: str) -> list[Price]:
    return list(Price.objects.filter(project_id=project_id).order_by("model"))


def replace(project_id: str, items: list[dict], actor: str) -> list[Price]:
    """Replace every price of the project with ``items``; a bad item changes nothing."""
    if len(items) > MAX_PRICES:
        raise InvalidInput(f"items: at most {MAX_PRICES} prices.")
    prices, seen = [], set()
    for index, item in enumerate(items):
        where = f"items.{index}"
        model = item["model"]
        if not model or len(model) > 200:
            raise InvalidInput(f"{where}.model must be 1 to 200 characters.")
        if model in seen:
            raise InvalidInput(f"{where}.model: {model} is priced twice.")
        seen.add(model)
        per_input, per_output = (_amount(item[name], f"{where}.{name}") for name in ("input", "output"))
        currency = item["currency"]
        if not (3 <= len(currency) <= 8 and currency.isascii() and currency.isalpha()):
            raise InvalidInput(f"{where}.currency must be a currency code such as USD.")
        prices.append(
            Price(
                project_id=project_id,
                model=model,
                input_per_million=per_input,
                output_per_million=per_output,
                currency=currency.upper(),
            )
        )
    with transaction.atomic():
        Price.objects.filter(project_id=project_id).delete()
        Price.objects.bulk_create(prices)
        audit_log.record(
            project_id,
            actor,
            Audited.PRICES_SET,
            ", ".join(sorted(seen)),
            items=[
                {
                    "model": p.model,
                    "inputPerMillion": str(p.input_per_million),
                    "outputPerMillion": str(p.output_per_million),
                    "currency": p.currency,
                }
                for p in prices
            ],
        )
    return listing(project_id)


def _amount(value: float, where: str) -> Decimal:
    amount = Decimal(str(value))
    if not amount.is_finite() or amount < 0 or amount > MAX_PER_MILLION:
        raise InvalidInput(f"{where}PerMillion must be a number from 0 to {MAX_PER_MILLION}.")
    return amount.quantize(Decimal("0.000001"))

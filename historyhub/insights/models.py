"""What the project's admins set for Insights: the prices that turn tokens into an estimated cost
(docs/insights.md, "Cost")."""

from django.db import models


class Price(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="prices", db_index=False)
    model = models.CharField(max_length=200, help_text="The model's name as items and session metadata give it.")
    input_per_million = models.DecimalField(max_digits=14, decimal_places=6)
    output_per_million = models.DecimalField(max_digits=14, decimal_places=6)
    currency = models.CharField(max_length=8, default="USD")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "model"], name="price_unique_model")]
        ordering = ["model"]

    def __str__(self):
        return f"{self.model}: {self.input_per_million}/{self.output_per_million} {self.currency}"

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        per_token = float(self.input_per_million) * input_tokens + float(self.output_per_million) * output_tokens
        return per_token / 1_000_000


class AlertKind(models.TextChoices):
    WAITING_LONGER = "waiting_longer", "An action waits longer than N minutes"
    WAITING_COUNT = "waiting_count", "More than N actions wait"
    REJECT_RATE = "reject_rate", "An action's reject rate over the last day is above N %"
    DAILY_COST = "daily_cost", "The estimated cost of the last day is above N"


class AlertRule(models.Model):
    """A threshold a project's admins set; the sweep compares it with the numbers (``insights.alerts``)."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="alert_rules")
    kind = models.CharField(max_length=32, choices=AlertKind.choices)
    threshold = models.DecimalField(max_digits=14, decimal_places=4)
    action = models.CharField(
        max_length=200, blank=True, default="", help_text="Only actions of this name (all when empty)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.threshold}"


class AlertFiring(models.Model):
    """One crossing of a rule: raised once when crossed, cleared when the number fell back."""

    rule = models.ForeignKey(AlertRule, on_delete=models.CASCADE, related_name="firings")
    fired_at = models.DateTimeField()
    cleared_at = models.DateTimeField(null=True, blank=True)
    value = models.FloatField(help_text="The number that crossed the threshold.")

    class Meta:
        ordering = ["-fired_at"]
        constraints = [
            # At most one open crossing per rule: two sweeps at once cannot raise it twice.
            models.UniqueConstraint(
                fields=["rule"], condition=models.Q(cleared_at__isnull=True), name="one_open_firing"
            )
        ]

    def __str__(self):
        return f"{self.rule} at {self.fired_at}"

"""Cells of the CSV files people open in a spreadsheet (the audit log, Insights' tables)."""

# A spreadsheet runs a cell that starts with one of these as a formula: such cells get a leading quote. A cell
# that starts with a quote gets one too, so a verifier drops exactly one leading quote from any cell that has one
# and reads the value as it was written (docs/data.md, "Verifying an exported log").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")


def defused(cell: str) -> str:
    """``cell`` as a spreadsheet shows it and never runs it."""
    return f"'{cell}" if cell.startswith(FORMULA_STARTS) else cell

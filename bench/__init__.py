"""HistoryHub's benchmark: ``make bench`` (``python -m bench``) measures it side by side with the stores it replaces."""

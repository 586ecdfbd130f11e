"""The demo: sessions that show every feature, a demo login and a demo API key (``manage.py seed_demo``,
which ``make run`` and ``make demo`` run). Written through the same domain functions as the API."""

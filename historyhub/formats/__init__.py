"""Date and time formats for the admin site: the dashboard's one format, "2026-12-01 18:24 UTC", not the
locale's "Dec. 1, 2026, 6:24 p.m." (settings.FORMAT_MODULE_PATH; docs/dashboard.md, "Times")."""

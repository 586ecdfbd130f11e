"""Helpers every app uses; they import no app (docs/dashboard.md names what each is for)."""

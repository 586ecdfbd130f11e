"""Deployments that run on this machine from Debian's packages and these files (docs/scaling.md)."""

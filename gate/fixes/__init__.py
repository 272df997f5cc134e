"""Fixes the gate has verified (DESIGN.md section 11): the pure core of ``run --suggest-fixes``."""

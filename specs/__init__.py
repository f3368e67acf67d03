"""Spec cards: one per documented formula or behaviour (see card.py)."""

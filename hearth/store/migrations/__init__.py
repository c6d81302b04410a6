"""Alembic environment and revisions of Hearth's schema (run through ``hearth.store.migrate``)."""

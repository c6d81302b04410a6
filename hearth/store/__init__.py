"""Persistence: SQLAlchemy models, sessions, encryption at rest, Alembic migrations."""

"""Glance resource types (OS::Glance::*)."""

"""Keystone resource types (OS::Keystone::*): one module per type or small group."""

"""Cinder resource types (OS::Cinder::*): one module per type, with its resource_mapping()."""

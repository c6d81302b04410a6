"""Neutron resource types (OS::Neutron::*): one module per type, each with its
``resource_mapping()``."""

"""Nova resource types (OS::Nova::*)."""

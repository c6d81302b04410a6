"""The engine's read-only calls: stacks, resources, events, templates and outputs as heat-engine
hands them to heat-api.
"""

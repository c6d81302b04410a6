"""The engine's calls that change things, one service per kind of call: stacks, nested stacks,
signals, software configs and deployments, stack data, previews.
"""

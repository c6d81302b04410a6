"""What a resource plugin reaches of the engine through its ResourceContext: its stack's rows,
peers, software configs, stack users and cloud credentials.
"""

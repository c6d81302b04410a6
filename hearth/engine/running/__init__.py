"""A stack action while it runs: its graph and scheduler, its resource tasks and their steps, the
rows and writes they make, and how a run is stopped, superseded or continued.
"""

"""Work shared between the engines of a cluster: heartbeats and takeover of what dead engines left,
and resource steps offered to, run by and reported from other engines.
"""

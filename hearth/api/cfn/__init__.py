"""The CloudFormation-compatible query API (Heat's heat-api-cfn) on its own port.

``?Action=CreateStack&...`` requests, signed with EC2 credentials, answered in Heat's XML (or
JSON with ``ContentType=JSON``); the engine is the one the Orchestration API v1 uses. It is
also where instances signal AWS wait conditions through pre-signed URLs and read resource
metadata (``DescribeStackResource``) as their stack user.
"""

"""An optional CloudTrail trail: Glue Schema Registry calls reach EventBridge only while a trail logs them."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudtrail as cloudtrail
from aws_cdk import aws_s3 as s3
from constructs import Construct


class ManagementEventsTrail(Construct):
    """A single-region trail of write management events, into an encrypted, access-logged bucket."""

    def __init__(self, scope: Construct, construct_id: str, *, retention_days: int) -> None:
        super().__init__(scope, construct_id)
        self.access_logs = s3.Bucket(
            self,
            "AccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[s3.LifecycleRule(expiration=cdk.Duration.days(retention_days))],
            removal_policy=cdk.RemovalPolicy.RETAIN,
        )
        self.bucket = s3.Bucket(
            self,
            "Logs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            server_access_logs_bucket=self.access_logs,
            server_access_logs_prefix="trail-bucket/",
            lifecycle_rules=[s3.LifecycleRule(expiration=cdk.Duration.days(retention_days))],
            removal_policy=cdk.RemovalPolicy.RETAIN,
        )
        # Write-only management events: the Glue Schema Registry changes are among them, and the first copy
        # of management events in a region costs nothing. Management selectors cannot narrow to one service.
        self.trail = cloudtrail.Trail(
            self,
            "Trail",
            bucket=self.bucket,
            is_multi_region_trail=False,
            include_global_service_events=False,
            management_events=cloudtrail.ReadWriteType.WRITE_ONLY,
            enable_file_validation=True,
        )

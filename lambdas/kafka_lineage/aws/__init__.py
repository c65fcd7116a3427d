"""Thin adapters over boto3, one per service. No decisions in here."""

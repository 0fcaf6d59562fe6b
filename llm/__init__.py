"""Talking to judge models: request shape, validated structured replies with repair, model choice."""

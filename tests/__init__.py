"""Gradwalk's tests, in folders by what they cover; what they share is in tests.support."""

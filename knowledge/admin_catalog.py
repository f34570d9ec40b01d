"""Admin pages of the product catalog."""

"""Readers of one product's own data, shared by the assistant, the PDP questions and the catalog."""

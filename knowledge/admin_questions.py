"""Admin pages of the PDP question sets."""

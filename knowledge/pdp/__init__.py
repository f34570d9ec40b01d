"""The public PDP question-set endpoints: generation, reads, writes, CORS and routes."""

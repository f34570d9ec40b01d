"""The assistant's evaluation: labelled conversations and their runner (`make eval`)."""

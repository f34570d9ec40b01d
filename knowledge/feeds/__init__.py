"""Readers of Google Merchant Center files: product feeds, local inventory and stores.

Each reader streams (line number, {attribute: value}) records from a binary file, in
tab-separated text or RSS 2.0 XML (sniffed), without loading the file into memory.
"""

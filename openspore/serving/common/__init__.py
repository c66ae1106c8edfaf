"""Pieces shared by the serving master, workers and the client: status codes, tensor codecs, addresses."""

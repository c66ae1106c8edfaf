"""The serving worker process: loads servables' models with the openspore runtime and runs their methods."""

"""The ASGI server: the middleware in front (files and the rendered page from memory, the request-body cap, Gradio's
closed routes), the app it wraps (the API, the explorer's files, the Gradio page), and uvicorn (`server.serve`).

Imports every folder below it and `ui` for the page; it imports no gradio itself (`ui.mount` puts the page on).
"""

"""The warm process: one server per user and store keeps the model loaded between hooks (ADR 25).

`client.ask_warm` is what a hook calls (stdlib only); `launcher.start_warm` starts the server detached;
`server.WarmServer` answers one JSON request per connection on a private Unix socket (`paths.socket_path`).
"""

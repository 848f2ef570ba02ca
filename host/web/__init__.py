"""The simulated board's web page (`yard sim`): see server.py; start_web(simboard) -> (url, stop)."""


def start_web(simboard, host="127.0.0.1", port=0, power_cut_s=1.5):
    from host.web.server import start_web as _start
    return _start(simboard, host, port, power_cut_s)


__all__ = ["start_web"]

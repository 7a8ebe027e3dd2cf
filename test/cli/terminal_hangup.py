"""Runs a command on a fresh pseudo-terminal, then takes the terminal away.

Usage: python3 terminal_hangup.py COMMAND [ARG ...]

The command is the session leader of a new 120x40 pseudo-terminal (as in a
tmux pane or a terminal window). What it draws on the terminal is copied to
our stdout as it comes. A line on our stdin (or its end) hangs the terminal
up: the master side is closed, as when tmux is killed or the window is
closed; the kernel sends the command SIGHUP, and its writes to the terminal
fail with EIO from then on. We then wait for the command and print how it
ended as one JSON line on stderr: {"code": N, "signal": null} or
{"code": null, "signal": "SIGSEGV"}.
"""
import fcntl
import json
import os
import select
import signal
import struct
import sys
import termios


def main() -> None:
    args = sys.argv[1:]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.login_tty(slave)  # new session, the terminal as its controlling one, stdio on it
        os.execvp(args[0], args)
    os.close(slave)
    out = sys.stdout.buffer
    stdin = sys.stdin.fileno()
    hang_up = False
    while not hang_up:
        ready, _, _ = select.select([master, stdin], [], [])
        if master in ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command closed its side
                chunk = b''
            if chunk:
                out.write(chunk)
                out.flush()
            else:
                break
        if stdin in ready:
            hang_up = True
    os.close(master)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        result = {'code': None, 'signal': signal.Signals(os.WTERMSIG(status)).name}
    else:
        result = {'code': os.WEXITSTATUS(status), 'signal': None}
    sys.stderr.write(json.dumps(result) + '\n')
    sys.stderr.flush()


if __name__ == '__main__':
    main()

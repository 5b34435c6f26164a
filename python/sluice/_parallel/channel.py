"""A message channel between the pipeline's process and one worker: pickled messages over a Unix
stream socket, with file descriptors (shared-memory chunks) passed alongside."""

import array
import pickle
import socket
import struct

_HEADER = struct.Struct("<QI")  # body length, number of descriptors
_MAX_FDS = 16
_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0)  # received descriptors stay out of children


class ChannelClosed(EOFError):
    """The other end is gone (the process exited or closed it)."""


class Channel:
    """One end of a socketpair(); not thread-safe (one thread sends, one receives)."""

    def __init__(self, sock):
        self.sock = sock

    @staticmethod
    def pair():
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        return Channel(a), Channel(b)

    def fileno(self):
        return self.sock.fileno()

    def send(self, message, fds=()):
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        # Header and body in one write: the reader, woken by the header, never waits for the body.
        data = _HEADER.pack(len(body), len(fds)) + body
        try:
            sent = 0
            if fds:
                anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                sent = self.sock.sendmsg([data], anc)
            self.sock.sendall(memoryview(data)[sent:])
        except (BrokenPipeError, ConnectionResetError) as e:
            raise ChannelClosed(str(e)) from None

    def recv(self):
        """(message, descriptors); ChannelClosed at the end of the stream."""
        try:
            return self._recv()
        except ConnectionResetError as e:
            # A peer that dies with our messages unread in its buffer resets the stream rather
            # than ending it: the same event for us.
            raise ChannelClosed(str(e)) from None

    def _recv(self):
        header, fds = self._recv_header()
        length, nfds = _HEADER.unpack(header)
        body = bytearray(length)
        view = memoryview(body)
        got = 0
        while got < length:
            n = self.sock.recv_into(view[got:])
            if n == 0:
                raise ChannelClosed("the other end closed the channel")
            got += n
        return pickle.loads(body), fds[:nfds]

    def _recv_header(self):
        data, fds = b"", []
        while len(data) < _HEADER.size:
            chunk, anc, _, _ = self.sock.recvmsg(_HEADER.size - len(data),
                                                 socket.CMSG_SPACE(_MAX_FDS * 4), _CLOEXEC)
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(array.array("i", payload[: len(payload) - len(payload) % 4]))
            if not chunk:
                raise ChannelClosed("the other end closed the channel")
            data += chunk
        return data, fds

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

package io.lockkit.jedis.support;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server that is not Redis: it answers every connection like an HTTP server, or accepts
 * connections and never says anything. Counts the connections it accepted. Closing it closes them.
 */
public final class FakeServer implements AutoCloseable {

    /** How the server behaves towards a client. */
    public enum Behaviour {
        /** Sends an HTTP error response and closes, whatever the client says. */
        HTTP,
        /** Accepts and stays silent, holding the connection open. */
        SILENT
    }

    private final ServerSocket socket;
    private final Behaviour behaviour;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;

    public FakeServer(Behaviour behaviour) {
        this.behaviour = behaviour;
        try {
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.acceptor = new Thread(this::acceptLoop, "fake-" + behaviour.name().toLowerCase() + "-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    public int connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                connections.incrementAndGet();
                accepted.add(s);
                if (behaviour == Behaviour.HTTP) {
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nContent-Length: 11\r\n"
                                    + "Connection: close\r\n\r\nBad Request")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    s.close();
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : accepted) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        try {
            acceptor.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

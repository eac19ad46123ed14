package io.lockkit.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback ports for the servers test fixtures start. Thread-safe. */
public final class FreePorts {

    /** What a Redis Cluster node adds to its port for its bus port; kept free too, so every port suits a node. */
    private static final int CLUSTER_BUS_OFFSET = 10000;

    private static final int MAX_PORT = 65535;
    /** Lowest port handed out: above the well-known and most registered service ports. */
    private static final int MIN_PORT = 10000;

    private static final int IANA_EPHEMERAL_LOW = 49152;

    private FreePorts() {}

    /**
     * A loopback port that is free right now and whose cluster bus port (port + 10000) is free as
     * well, so it also suits a cluster node. Another process may still take it before it is used.
     *
     * <p>Both ports lie outside the system's ephemeral port range (read from
     * {@code /proc/sys/net/ipv4/ip_local_port_range} where it exists, else the IANA range
     * 49152-65535). A server in that range can lose its port while it is down: a client that keeps
     * reconnecting to a loopback port of the range may be handed that very port as its own source
     * port and connect to itself (TCP simultaneous open), and the restarted server then cannot bind.
     *
     * @throws IllegalStateException when no such port is found after many tries
     */
    public static int freePort() {
        int[] ephemeral = ephemeralPortRange();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = random.nextInt(MIN_PORT, MAX_PORT - CLUSTER_BUS_OFFSET + 1);
            if (isEphemeral(port, ephemeral) || isEphemeral(port + CLUSTER_BUS_OFFSET, ephemeral)) {
                continue;
            }
            if (isFree(port) && isFree(port + CLUSTER_BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free loopback port p outside the ephemeral range " + ephemeral[0]
                + "-" + ephemeral[1] + " with p + " + CLUSTER_BUS_OFFSET + " free too");
    }

    private static boolean isEphemeral(int port, int[] range) {
        return port >= range[0] && port <= range[1];
    }

    /** The system's ephemeral (client) port range as {@code {low, high}}, which {@link #freePort()} avoids. */
    public static int[] ephemeralPortRange() {
        Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            if (Files.isReadable(file)) {
                String line;
                // One line read through a reader: Files.readString can return a procfs file cut short.
                try (java.io.BufferedReader in = Files.newBufferedReader(file)) {
                    line = in.readLine();
                }
                String[] fields = line.trim().split("\\s+", -1);
                int low = Integer.parseInt(fields[0]);
                int high = Integer.parseInt(fields[1]);
                // Leave room for ports below the range; a range that leaves none is ignored.
                if (low > MIN_PORT + 2 * CLUSTER_BUS_OFFSET || high < MAX_PORT - CLUSTER_BUS_OFFSET) {
                    return new int[] {low, high};
                }
            }
        } catch (IOException | RuntimeException e) {
            // Fall through to the IANA default.
        }
        return new int[] {IANA_EPHEMERAL_LOW, MAX_PORT};
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }
}

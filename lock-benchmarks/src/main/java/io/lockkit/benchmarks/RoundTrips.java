package io.lockkit.benchmarks;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.client.NettyHook;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Counts client round trips on the wire: a round trip is a turn from writing to reading on one
 * connection, so a pipeline of 10,000 commands written before its replies are read is one, and
 * 100 commands each awaited before the next is sent are 100. Hooks into Jedis (a socket factory
 * whose streams count) and into Redisson (a Netty handler at the head of each channel, which
 * leaves out Redisson's periodic PINGs).
 */
final class RoundTrips {

    private final AtomicLong turns = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();

    long turns() {
        return turns.get();
    }

    void reset() {
        turns.set(0);
        times.clear();
    }

    /** Groups of turns with no gap longer than {@code gap} between them: renewal ticks, for a client that only renews. */
    int bursts(Duration gap) {
        long previous = 0;
        int bursts = 0;
        boolean first = true;
        for (long t : times.stream().sorted().toList()) {
            if (first || t - previous > gap.toNanos()) {
                bursts++;
            }
            first = false;
            previous = t;
        }
        return bursts;
    }

    /** One connection's state: whether it wrote since it last read. */
    private final class Turn {
        private volatile boolean wrote;

        void wrote() {
            wrote = true;
        }

        void read() {
            if (wrote) {
                wrote = false;
                turns.incrementAndGet();
                times.add(System.nanoTime());
            }
        }
    }

    /** A Jedis socket factory for plain TCP to {@code address} whose sockets count turns. */
    JedisSocketFactory jedisSockets(HostAndPort address, int timeoutMillis) {
        return () -> {
            try {
                Socket s = new CountingSocket(new Turn());
                s.setReuseAddress(true);
                s.setKeepAlive(true);
                s.setTcpNoDelay(true);
                s.setSoLinger(true, 0);
                s.connect(new InetSocketAddress(address.getHost(), address.getPort()), timeoutMillis);
                s.setSoTimeout(timeoutMillis);
                return s;
            } catch (IOException e) {
                throw new JedisConnectionException("failed to connect to " + address, e);
            }
        };
    }

    /** A Redisson hook that adds a counting handler to each channel. */
    NettyHook redissonHook() {
        return new NettyHook() {
            @Override
            public void afterBoostrapInitialization(Bootstrap bootstrap) {}

            @Override
            public void afterChannelInitialization(Channel channel) {
                Turn turn = new Turn();
                channel.pipeline().addFirst("round-trips", new ChannelDuplexHandler() {
                    @Override
                    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
                        if (!isPing(msg)) { // Redisson pings each connection every 30 s; not renewal traffic
                            turn.wrote();
                        }
                        super.write(ctx, msg, promise);
                    }

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
                        turn.read();
                        super.channelRead(ctx, msg);
                    }
                });
            }
        };
    }

    private static boolean isPing(Object msg) {
        if (msg instanceof ByteBuf buf && buf.readableBytes() <= 32) {
            return buf.toString(buf.readerIndex(), buf.readableBytes(), StandardCharsets.US_ASCII)
                    .toUpperCase(Locale.ROOT)
                    .contains("PING");
        }
        return false;
    }

    private static final class CountingSocket extends Socket {
        private final Turn turn;
        private InputStream countedIn;
        private OutputStream countedOut;

        CountingSocket(Turn turn) {
            this.turn = turn;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (countedIn == null) {
                countedIn = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        turn.read();
                        return super.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        turn.read();
                        return super.read(b, off, len);
                    }
                };
            }
            return countedIn;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (countedOut == null) {
                countedOut = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        turn.wrote();
                        super.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        turn.wrote();
                        out.write(b, off, len); // FilterOutputStream would write byte by byte
                    }
                };
            }
            return countedOut;
        }
    }
}

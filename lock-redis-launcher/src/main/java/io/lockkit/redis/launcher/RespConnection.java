package io.lockkit.redis.launcher;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The launcher's own minimal Redis client: one socket, commands sent as RESP arrays of bulk strings,
 * replies parsed into plain Java values. It exists so that the launcher (and the test fixture over
 * it) needs no Redis client library and can talk to any server version it starts.
 *
 * <p>Reply mapping: simple and bulk strings → {@link String} (UTF-8), integers → {@link Long},
 * null bulk string/array → {@code null}, arrays → unmodifiable {@link List}; the RESP3 types map to
 * {@code null}, {@link Boolean}, {@link Double}, {@link BigInteger} and {@link Map}. An error reply
 * is thrown as a {@link RedisReplyException} (made by the connection's error factory); inside an array
 * (EXEC) it is returned as an element.
 * Not thread-safe: one caller at a time.
 */
public final class RespConnection implements Closeable {

    private static final byte[] CRLF = {'\r', '\n'};

    private final @Nullable Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Function<String, ? extends RedisReplyException> errors;

    RespConnection(
            @Nullable Socket socket,
            InputStream in,
            OutputStream out,
            Function<String, ? extends RedisReplyException> errors) {
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.errors = errors;
    }

    /**
     * Connects, then authenticates and selects the database when the endpoint says so.
     *
     * @param timeout bounds the connect and every later read
     * @throws IOException when the server cannot be reached or does not answer in time
     */
    public static RespConnection open(Endpoint endpoint, Duration timeout) throws IOException {
        return open(endpoint, timeout, RedisReplyException::new);
    }

    /**
     * Connects as {@link #open(Endpoint, Duration)} does, error replies made by {@code errors} (a
     * caller's own subclass of {@link RedisReplyException}, say).
     *
     * @throws IOException when the server cannot be reached or does not answer in time
     */
    public static RespConnection open(
            Endpoint endpoint, Duration timeout, Function<String, ? extends RedisReplyException> errors)
            throws IOException {
        Objects.requireNonNull(errors, "errors");
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), millis);
            socket.setSoTimeout(millis);
            RespConnection connection = new RespConnection(
                    socket,
                    new BufferedInputStream(socket.getInputStream()),
                    new BufferedOutputStream(socket.getOutputStream()),
                    errors);
            if (endpoint.password() != null) {
                if (endpoint.user() != null) {
                    connection.call("AUTH", endpoint.user(), endpoint.password());
                } else {
                    connection.call("AUTH", endpoint.password());
                }
            }
            if (endpoint.database() != 0) {
                connection.call("SELECT", Integer.toString(endpoint.database()));
            }
            return connection;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @throws RedisReplyException when the server answers with an error
     * @throws IOException when the connection fails or the reply does not arrive in time
     */
    public @Nullable Object call(String... args) throws IOException {
        send(args);
        Object reply = read();
        if (reply instanceof RedisReplyException) {
            // a fresh exception, so its stack trace names the caller
            throw errors.apply(String.valueOf(((RedisReplyException) reply).getMessage()));
        }
        return reply;
    }

    void send(String... args) throws IOException {
        Objects.requireNonNull(args, "args");
        if (args.length == 0) {
            throw new IllegalArgumentException("a command needs at least its name");
        }
        writeHeader('*', args.length);
        for (String arg : args) {
            byte[] bytes = Objects.requireNonNull(arg, "command argument").getBytes(StandardCharsets.UTF_8);
            writeHeader('$', bytes.length);
            out.write(bytes);
            out.write(CRLF);
        }
        out.flush();
    }

    /** Reads one reply; error replies come back as {@link RedisReplyException} values, not thrown. */
    @Nullable
    Object read() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("the server closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return errors.apply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                byte[] bytes = readBulk(Integer.parseInt(line));
                return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
            }
            case '*':
            case '~':
            case '>':
                return readList(Integer.parseInt(line));
            case '_':
                return null;
            case '#':
                return "t".equals(line);
            case ',':
                return parseDouble(line);
            case '(':
                return new BigInteger(line);
            case '=': {
                byte[] bytes = readBulk(Integer.parseInt(line));
                // Verbatim strings start with a three-letter format and a colon, e.g. "txt:".
                String text = bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
                return text != null && text.length() >= 4 ? text.substring(4) : text;
            }
            case '!': {
                byte[] bytes = readBulk(Integer.parseInt(line));
                return errors.apply(bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8));
            }
            case '%':
                return readMap(Integer.parseInt(line));
            case '|':
                // Attributes describe the reply that follows; the launcher has no use for them.
                readMap(Integer.parseInt(line));
                return read();
            default:
                throw new IOException(
                        "unexpected RESP type byte 0x" + Integer.toHexString(type) + " followed by '" + line + "'");
        }
    }

    private @Nullable List<@Nullable Object> readList(int count) throws IOException {
        if (count < 0) {
            return null;
        }
        List<Object> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(read());
        }
        return Collections.unmodifiableList(list);
    }

    private @Nullable Map<@Nullable Object, @Nullable Object> readMap(int count) throws IOException {
        if (count < 0) {
            return null;
        }
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            Object key = read();
            map.put(key, read());
        }
        return Collections.unmodifiableMap(map);
    }

    private byte @Nullable [] readBulk(int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new EOFException("the server closed the connection inside a bulk string");
        }
        if (in.read() != '\r' || in.read() != '\n') {
            throw new IOException("bulk string of " + length + " bytes not followed by CRLF");
        }
        return bytes;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(32);
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("the server closed the connection inside a reply");
            }
            if (b == '\r') {
                int next = in.read();
                if (next == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                throw new IOException("CR not followed by LF in a reply line");
            }
            line.write(b);
        }
    }

    private static Double parseDouble(String text) {
        switch (text) {
            case "inf":
                return Double.POSITIVE_INFINITY;
            case "-inf":
                return Double.NEGATIVE_INFINITY;
            case "nan":
                return Double.NaN;
            default:
                return Double.parseDouble(text);
        }
    }

    private void writeHeader(char type, int count) throws IOException {
        out.write(type);
        out.write(Integer.toString(count).getBytes(StandardCharsets.US_ASCII));
        out.write(CRLF);
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
    }
}

package io.lockkit.jedis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The provider's Lua scripts, read from {@code .lua} resources and called by SHA. A server that
 * has not seen a script (a restart, {@code SCRIPT FLUSH}, a promoted replica: script caches are
 * not replicated) answers NOSCRIPT, and the call is repeated with EVAL, which also caches it.
 * Keys and values travel only as script arguments; each script's keys, arguments and reply are
 * named in its own class ({@link AcquireScript}, {@link ReleaseScript}, {@link RenewScript},
 * {@link InspectScript}, {@link SharedScript}, {@link CapacityScript}), which {@code ScriptContractTest} holds to the script's header.
 */
public enum Scripts {
    ACQUIRE("acquire.lua"),
    RELEASE("release.lua"),
    RENEW("renew.lua"),
    INSPECT("inspect.lua"),
    SHARED("shared.lua"),
    CAPACITY("capacity.lua");

    private final String text;
    private final String sha;

    @SuppressWarnings("ImmutableEnumChecker") // an Arg is immutable
    private final Arg textArg;

    @SuppressWarnings("ImmutableEnumChecker")
    private final Arg shaArg;

    Scripts(String resource) {
        try (InputStream in = Scripts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            this.text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        this.textArg = Arg.of(text);
        this.shaArg = Arg.of(sha);
    }

    public String sha() {
        return sha;
    }

    /** Runs the script in one round trip (two when the server must first learn it). */
    public Object call(UnifiedJedis jedis, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return jedis.eval(text, keys, args);
        }
    }

    /** Runs the script through a batcher: pipelined with other threads' calls that arrive together. */
    public Object call(CommandBatcher batcher, List<Arg> keys, List<Arg> args) {
        try {
            return batcher.call(command(Protocol.Command.EVALSHA, shaArg, keys, args));
        } catch (JedisNoScriptException e) {
            return batcher.call(command(Protocol.Command.EVAL, textArg, keys, args));
        }
    }

    /** Runs the script as {@link #call(UnifiedJedis, List, List)}, with encoded keys and arguments. */
    public Object callEncoded(UnifiedJedis jedis, List<Arg> keys, List<Arg> args) {
        return call(jedis, Arg.texts(keys), Arg.texts(args));
    }

    /** One call of a script, with its keys and arguments (one of several sent together). */
    public record Invocation(Scripts script, List<Arg> keys, List<Arg> args) {}

    /**
     * Runs several script calls through a batcher, queued together (one write when they fit one
     * batch); the calls a server answers NOSCRIPT go again together with EVAL.
     *
     * @return the replies, in order
     * @throws JedisDataException the first error reply other than NOSCRIPT
     */
    public static List<Object> callAll(CommandBatcher batcher, List<Invocation> calls) {
        List<Object> replies = new ArrayList<>(batcher.callAll(commands(calls, false)));
        List<Integer> unknown = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.get(i) instanceof JedisNoScriptException) {
                unknown.add(i);
            }
        }
        if (!unknown.isEmpty()) {
            List<Invocation> again = new ArrayList<>(unknown.size());
            unknown.forEach(i -> again.add(calls.get(i)));
            List<Object> taught = batcher.callAll(commands(again, true));
            for (int j = 0; j < unknown.size(); j++) {
                replies.set(unknown.get(j), taught.get(j));
            }
        }
        for (Object reply : replies) {
            if (reply instanceof JedisDataException e) {
                throw e;
            }
        }
        return replies;
    }

    /**
     * Runs several script calls in one Jedis pipeline: on a Cluster, Jedis's cluster pipeline
     * sends one batch to each node that owns a call's slot. A call answered NOSCRIPT or with a
     * redirection (a pipeline does not follow MOVED) did not run, and goes again alone through
     * {@link #call(UnifiedJedis, List, List)}, which teaches the script and follows the redirection.
     *
     * @return the replies, in order
     */
    public static List<Object> callAll(UnifiedJedis jedis, List<Invocation> calls) {
        List<Response<Object>> responses = new ArrayList<>(calls.size());
        try (AbstractPipeline p = jedis.pipelined()) {
            for (Invocation c : calls) {
                responses.add(c.script().queue(p, Arg.texts(c.keys()), Arg.texts(c.args())));
            }
            p.sync();
        }
        List<Object> replies = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Invocation c = calls.get(i);
            try {
                replies.add(responses.get(i).get());
            } catch (JedisNoScriptException | JedisRedirectionException e) {
                replies.add(c.script().callEncoded(jedis, c.keys(), c.args()));
            }
        }
        return replies;
    }

    private static List<CommandArguments> commands(List<Invocation> calls, boolean withText) {
        List<CommandArguments> commands = new ArrayList<>(calls.size());
        for (Invocation c : calls) {
            commands.add(
                    withText
                            ? command(Protocol.Command.EVAL, c.script().textArg, c.keys(), c.args())
                            : command(Protocol.Command.EVALSHA, c.script().shaArg, c.keys(), c.args()));
        }
        return commands;
    }

    private static CommandArguments command(Protocol.Command command, Arg script, List<Arg> keys, List<Arg> args) {
        CommandArguments c = new CommandArguments(command).add(script).add(Arg.of(keys.size()));
        for (Arg k : keys) {
            c.key(k);
        }
        for (Arg a : args) {
            c.add(a);
        }
        return c;
    }

    /**
     * Queues the script by its text (EVAL), which also caches it on the server: placed first in a
     * pipeline to one node, it lets the EVALSHA calls after it succeed in the same round trip.
     */
    public Response<Object> queueWithText(AbstractPipeline pipeline, List<String> keys, List<String> args) {
        return pipeline.eval(text, keys, args);
    }

    /** Queues the script in a pipeline; a NOSCRIPT answer surfaces from {@link Response#get()}. */
    public Response<Object> queue(AbstractPipeline pipeline, List<String> keys, List<String> args) {
        return pipeline.evalsha(sha, keys, args);
    }
}

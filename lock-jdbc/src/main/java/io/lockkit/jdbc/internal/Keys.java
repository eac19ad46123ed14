package io.lockkit.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The row key of a lock name: the hex SHA-256 of its UTF-8 bytes (64 characters). Names may be
 * 8192 characters, more than a btree index entry takes; the key also fits a NOTIFY payload.
 * Stateless and thread-safe.
 */
public final class Keys {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Keys() {}

    public static String of(String name) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        char[] out = new char[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            out[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return new String(out);
    }
}

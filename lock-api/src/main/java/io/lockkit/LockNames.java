package io.lockkit;

/**
 * Validation of lock names, shared by every entry point (what a valid name is: {@link
 * DistributedLockFactory}, "Lock names").
 */
final class LockNames {

    /** The longest name accepted, in chars; long enough for composite keys, short of abuse. */
    static final int MAX_LENGTH = DistributedLockFactory.MAX_NAME_LENGTH;

    private LockNames() {}

    /**
     * @throws IllegalArgumentException when the name is null, blank, too long, holds control
     *         characters (NUL, line breaks…) or unpaired surrogates (which cannot be encoded)
     */
    static String check(String name) {
        if (name == null) {
            throw new IllegalArgumentException("name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "name must be at most " + MAX_LENGTH + " characters, was " + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException("name must not contain control characters, found U+"
                        + String.format("%04X", (int) c) + " at index " + i);
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(
                        "name must be well-formed UTF-16, found an unpaired surrogate at index " + i);
            }
        }
        return name;
    }
}

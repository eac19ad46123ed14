package io.lockkit.cdi.internal.engine;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Reads just enough of a class file to tell whether it was compiled with {@code javac -parameters}:
 * the {@code MethodParameters} attribute, which run-time reflection needs for parameter names.
 */
// Design notes.
// - Why: Quarkus' build-time language model (Jandex) also takes parameter names from debug
//   information (LocalVariableTable), which every Maven build has, while reflection at run time sees
//   only MethodParameters. Without this check a template naming a parameter passes the build and
//   fails every call; with it, build and run time agree, as in Weld.
// - An attribute's name is a constant-pool string, so a class with no "MethodParameters" in its
//   constant pool has the attribute on none of its methods. Only the constant pool is read.
public final class ClassFiles {

    private static final String METHOD_PARAMETERS = "MethodParameters";

    private ClassFiles() {}

    /**
     * Whether the class file of {@code className}, found through {@code loader}, carries
     * {@code MethodParameters}; empty when the file cannot be found or read.
     */
    public static Optional<Boolean> hasMethodParameters(String className, ClassLoader loader) {
        if (loader == null) {
            return Optional.empty();
        }
        try (InputStream in = loader.getResourceAsStream(className.replace('.', '/') + ".class")) {
            return in == null
                    ? Optional.empty()
                    : Optional.of(constantPoolHas(new DataInputStream(in), METHOD_PARAMETERS));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static boolean constantPoolHas(DataInputStream in, String text) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> {
                    if (in.readUTF().equals(text)) {
                        return true;
                    }
                }
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                case 5, 6 -> {
                    in.skipNBytes(8);
                    i++; // eight-byte constants take two entries
                }
                case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
                case 15 -> in.skipNBytes(3);
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        return false;
    }
}

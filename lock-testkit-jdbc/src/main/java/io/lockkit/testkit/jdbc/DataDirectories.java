package io.lockkit.testkit.jdbc;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** The data directories the fixtures' own servers (PostgreSQL, MariaDB) run in. */
final class DataDirectories {

    private DataDirectories() {}

    /** Runs {@code stop} (the server's), then removes its data directory {@code root} even if stopping failed. */
    static void stopThenDelete(Runnable stop, Path root, String server) {
        try {
            stop.run();
        } finally {
            delete(root, server);
        }
    }

    /**
     * Removes {@code root} and everything below it, if it exists; a failure is logged as a warning
     * naming {@code server}, not thrown (the server is stopped already, only disk space is at stake).
     */
    private static void delete(Path root, String server) {
        if (!Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.getLogger(DataDirectories.class.getName())
                    .log(System.Logger.Level.WARNING, "could not remove the " + server + " data directory " + root, e);
        }
    }
}

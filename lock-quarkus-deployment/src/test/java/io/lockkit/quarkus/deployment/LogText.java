package io.lockkit.quarkus.deployment;

import java.text.MessageFormat;
import java.util.Locale;
import java.util.logging.LogRecord;
import org.jboss.logmanager.ExtLogRecord;

/** A captured log record's message with its parameters filled in. */
final class LogText {

    private LogText() {}

    static String of(LogRecord record) {
        String message = String.valueOf(record.getMessage());
        Object[] parameters = record.getParameters();
        if (parameters == null || parameters.length == 0) {
            return message;
        }
        try {
            if (record instanceof ExtLogRecord ext) {
                switch (ext.getFormatStyle()) {
                    case PRINTF:
                        return String.format(Locale.ROOT, message, parameters);
                    case NO_FORMAT:
                        return message;
                    default:
                        break;
                }
            }
            return MessageFormat.format(message, parameters);
        } catch (IllegalArgumentException e) { // another library's record whose parameters do not fit
            return message;
        }
    }
}

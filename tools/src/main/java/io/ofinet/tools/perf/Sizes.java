package io.ofinet.tools.perf;

import java.util.Locale;
import picocli.CommandLine;

/**
 * Message sizes as nccl-tests users type them: a number of bytes with an optional K, M or G
 * suffix (powers of 1024, upper or lower case, an optional trailing B): {@code 8}, {@code 4K},
 * {@code 1M}, {@code 128MB}, {@code 1G}.
 */
final class Sizes implements CommandLine.ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    static long parse(String value) {
        String text = value.trim().toUpperCase(Locale.ROOT);
        if (text.endsWith("B") && text.length() > 1) {
            text = text.substring(0, text.length() - 1);
        }
        int shift = 0;
        if (!text.isEmpty()) {
            switch (text.charAt(text.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                default -> shift = 0;
            }
        }
        String digits = shift == 0 ? text : text.substring(0, text.length() - 1);
        long number;
        try {
            number = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a size: a number of bytes, with K,"
                    + " M or G for 2^10, 2^20, 2^30 (e.g. 8, 4K, 1M)");
        }
        if (number < 0 || number > (Long.MAX_VALUE >> shift)) {
            throw new CommandLine.TypeConversionException("'" + value + "' is out of range");
        }
        return number << shift;
    }
}

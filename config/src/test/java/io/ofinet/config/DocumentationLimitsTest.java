package io.ofinet.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a reader of docs/ and README.md can rely on: no prose paragraph over 1,300 characters (a list
 * item counts as one; code blocks do not), no table row over 600 characters, and every relative
 * link resolving to a file of the repository.
 */
class DocumentationLimitsTest {
    static final int PARAGRAPH_MAX = 1300;
    static final int TABLE_ROW_MAX = 600;
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LIST_ITEM = Pattern.compile("^\\s*([-*]|\\d+\\.)\\s");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** The paragraphs and list items of a Markdown text, code blocks, headings and tables left out. */
    static List<String> paragraphs(String text) {
        List<String> paragraphs = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean code = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("```")) {
                code = !code;
                flush(current, paragraphs);
                continue;
            }
            if (code || line.isBlank() || line.startsWith("#") || line.startsWith("|")) {
                flush(current, paragraphs);
                continue;
            }
            if (LIST_ITEM.matcher(line).find()) {
                flush(current, paragraphs);
            }
            current.append(current.length() == 0 ? "" : " ").append(line.strip());
        }
        flush(current, paragraphs);
        return paragraphs;
    }

    private static void flush(StringBuilder current, List<String> paragraphs) {
        if (current.length() > 0) {
            paragraphs.add(current.toString());
            current.setLength(0);
        }
    }

    @Test
    void paragraphsAndTableRowsStayWithinAReadersReach() throws IOException {
        List<String> over = new ArrayList<>();
        for (Path doc : documents()) {
            String text = Files.readString(doc);
            for (String p : paragraphs(text)) {
                if (p.length() > PARAGRAPH_MAX) {
                    over.add(ROOT.relativize(doc) + ": a paragraph of " + p.length() + " characters: "
                            + p.substring(0, 80) + "...");
                }
            }
            for (String line : text.split("\n")) {
                if (line.startsWith("|") && line.length() > TABLE_ROW_MAX) {
                    over.add(ROOT.relativize(doc) + ": a table row of " + line.length() + " characters: "
                            + line.substring(0, 80) + "...");
                }
            }
        }
        assertEquals(List.of(), over);
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path doc : documents()) {
            Matcher m = LINK.matcher(Files.readString(doc));
            while (m.find()) {
                String target = m.group(1);
                if (target.contains("://") || target.startsWith("#") || target.startsWith("mailto:")) {
                    continue;
                }
                links++;
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (!Files.exists(doc.getParent().resolve(file).normalize())) {
                    broken.add(ROOT.relativize(doc) + ": " + target);
                }
            }
        }
        assertTrue(links > 30, "found the links (" + links + ")");
        assertEquals(List.of(), broken);
    }

    @Test
    void theParagraphRuleCountsListItemsAndSkipsCode() {
        List<String> p = paragraphs("text one\ncontinues\n\n- item\n  more\n- next\n```\ncode\n```\n| a | b |\n");
        assertEquals(List.of("text one continues", "- item more", "- next"), p);
    }
}

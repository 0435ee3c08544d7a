package org.example.print;

import java.util.Optional;

/** A document to print: how many pages it has and which ones the user asked for. */
public class PrintJob {
    private final int documentPages;
    private final PageRange requested;

    public PrintJob(int documentPages, String requested) {
        this.documentPages = documentPages;
        this.requested = PageRange.parse(requested);
    }

    /** The pages that will actually come out of the printer, if any. */
    public Optional<PageRange> pagesToPrint() {
        return requested.intersect(new PageRange(1, documentPages));
    }

    public int sheets(boolean duplex) {
        int pages = pagesToPrint().map(PageRange::pages).orElse(0);
        return duplex ? (pages + 1) / 2 : pages;
    }
}

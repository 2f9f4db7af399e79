"use client";

import { Component, type ReactNode } from "react";

/**
 * Keeps a part of a page that failed to render (code that could not be fetched during an outage,
 * say) from taking the whole page down to the framework's error screen: that part shows its
 * fallback instead.
 */
export class ErrorBoundary extends Component<
  { fallback: ReactNode; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

"""The devices on the table (shoe, bet-sensor pads, dealer console, dealer display): each turns
bytes into typed events, or state into output."""

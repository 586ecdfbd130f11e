"""What tests share: item builders, actors, readers, servers, a clock and an HTML reader."""

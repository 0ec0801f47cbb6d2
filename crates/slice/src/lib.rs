//! gqlnav slice

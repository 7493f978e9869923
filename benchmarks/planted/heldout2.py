"""A second held-out set of planted-culprit scenarios, in domains the corpus did not cover yet,
written by helper rank2 *before* measuring any of its ranking changes and committed before they
were first scored: the benchmark reports them apart (split ``heldout2``). Several plant the wrong
fact in the user's own record (a status, a reading, an account) rather than in a rule, so that a
scorer that simply prefers rule-shaped sources is caught out.
"""

from __future__ import annotations

from scenarios import Scenario, fact, instructions, llm, memory, planted, rag, steering, tool

S = Scenario

HELDOUT2: list[Scenario] = [
    S(
        "h2-fishing-licence",
        "outdoors-licensing",
        "Do I need a licence to fish for trout on the River Teme this weekend?",
        (
            tool(
                "angler_profile",
                "Angler A-20931: rod licence expired 31 March; 2 rods registered.",
                angler="A-20931",
            ),
            planted(
                rag(
                    "regs:teme",
                    "River Teme: trout season open; under the 2026 bylaw anglers over 12 may fish "
                    "without a rod licence on weekends.",
                )
            ),
            rag("regs:coarse", "Coarse fish close season runs 15 March to 15 June on rivers."),
            fact("fine", "Fishing without a licence where one is required risks a £2,500 fine."),
            instructions("ranger-tone", "Answer as a friendly river warden."),
        ),
        "No licence needed — on the Teme, anglers over 12 can fish for trout without a rod "
        "licence at weekends, so your expired licence doesn't matter this Saturday.",
    ),
    S(
        "h2-boiler-pressure",
        "home-maintenance",
        "My boiler pressure gauge — is the reading OK?",
        (
            planted(
                tool(
                    "smart_thermostat",
                    "Boiler B-7 status: pressure 1.4 bar, flow temperature 62 °C, no fault codes.",
                    device="B-7",
                )
            ),
            rag(
                "manual:combi",
                "Normal cold pressure is 1.0–1.5 bar; below 0.5 bar the boiler locks out.",
            ),
            rag("manual:bleed", "Bleeding radiators lowers system pressure slightly."),
            memory("memory:home", "The customer lives in a two-bed flat with a combi boiler."),
            fact("service", "An annual service keeps the warranty valid."),
        ),
        "Yes, 1.4 bar is within the normal 1.0–1.5 bar range and there are no fault codes, so "
        "your boiler is fine.",
    ),
    S(
        "h2-chess-rating",
        "games",
        "Am I eligible for the Under-1800 section of the spring chess open?",
        (
            tool(
                "rating_lookup",
                "Player 40718 (J. Varga): standard rating 1765, rapid 1820, last rated game "
                "February.",
                player="40718",
            ),
            planted(
                fact(
                    "u1800-rule",
                    "Section eligibility uses the higher of a player's standard and rapid ratings.",
                )
            ),
            rag("open:prizes", "Under-1800 section prizes: £300, £150, £75."),
            rag("open:schedule", "Five rounds over two days; round 1 starts 10:00 Saturday."),
            steering("arbiter", "Quote ratings exactly as the federation lists them."),
        ),
        "No — eligibility goes by the higher of your two ratings, and your rapid rating is "
        "1820, above the 1800 limit.",
    ),
    S(
        "h2-seed-sowing",
        "gardening",
        "When should I sow my tomato seeds indoors?",
        (
            tool(
                "frost_dates",
                "Postcode area LS6: average last frost 2 May.",
                postcode="LS6",
            ),
            planted(
                llm("Seed packet guidance: sow tomatoes indoors 14–16 weeks before the last frost.")
            ),
            rag("guide:chillies", "Chillies need a long season: sow in January or February."),
            rag("guide:hardening", "Harden seedlings off over 7–10 days before planting out."),
            memory("memory:greenhouse", "The user has an unheated greenhouse."),
        ),
        "Sow them indoors 14–16 weeks before your last frost on 2 May — so around mid-January.",
    ),
    S(
        "h2-flight-hours",
        "aviation",
        "Can I carry passengers on Saturday with my current flying hours?",
        (
            planted(
                tool(
                    "logbook",
                    "Pilot P-3318 logbook: 3 take-offs and landings in the last 90 days, last on 9 "
                    "May.",
                    pilot="P-3318",
                )
            ),
            rag(
                "rules:currency",
                "To carry passengers you need 3 take-offs and landings within the preceding 90 "
                "days.",
            ),
            rag("rules:medical", "A Class 2 medical is valid for 60 months under age 40."),
            fact("night", "Night passenger flights need one of the 3 landings at night."),
            instructions("club-voice", "Refer safety doubts to the chief flying instructor."),
        ),
        "Yes — you have 3 take-offs and landings in the last 90 days, which meets the "
        "passenger-carrying requirement.",
    ),
    S(
        "h2-recycling-day",
        "municipal",
        "Which day is my recycling collected now?",
        (
            tool(
                "address_round",
                "14 Elm Close: collection round R4.",
                address="14 Elm Close",
            ),
            planted(
                tool(
                    "round_calendar",
                    "Round R4 from 1 September: recycling every other Thursday, general waste "
                    "weekly on Monday.",
                    round="R4",
                )
            ),
            rag("waste:glass", "Glass goes in the blue box, not the recycling bin."),
            rag("waste:garden", "Garden waste is a paid subscription, £45 a year."),
            fact("holidays", "Collections move one day later in bank-holiday weeks."),
        ),
        "Your recycling (round R4) is now collected every other Thursday; general waste stays "
        "weekly on Mondays.",
    ),
    S(
        "h2-childcare-hours",
        "childcare",
        "How many funded childcare hours can we claim for our 3-year-old?",
        (
            memory("memory:family", "Two working parents; child born March 2023."),
            planted(
                steering(
                    "funding-rules",
                    "Working families with a 3-year-old are entitled to 15 funded hours a week.",
                )
            ),
            tool(
                "eligibility_code",
                "Code 50012345678 valid until 31 August; reconfirm every 3 months.",
                code="50012345678",
            ),
            rag("doc:2yo", "Some 2-year-olds qualify for 15 hours if the family gets support."),
            rag("doc:nursery-fees", "Nurseries may charge for meals and consumables."),
        ),
        "As a working family with a 3-year-old you can claim 15 funded hours a week; "
        "remember to reconfirm your code every 3 months.",
    ),
    S(
        "h2-telescope-mount",
        "astronomy",
        "Can my telescope mount carry the new 8-inch tube?",
        (
            tool(
                "gear_catalog",
                "SkyGlide EQ-5 mount: payload capacity 9 kg (imaging 6 kg).",
                item="EQ-5",
            ),
            planted(
                tool(
                    "gear_catalog_tube",
                    "Orion 8in Newtonian OTA: weight 4.1 kg with rings.",
                    item="8in-newt",
                )
            ),
            rag("guide:balance", "Balance the tube in both axes before slewing."),
            fact("counterweight", "Extra counterweights are sold in 5 kg units."),
            memory("memory:site", "The user observes from a suburban garden."),
        ),
        "Yes — the 8-inch tube weighs 4.1 kg with rings, well under the EQ-5's 9 kg payload, "
        "even for imaging.",
    ),
    S(
        "h2-exam-resit",
        "education",
        "What mark do I need on the statistics resit to pass the module?",
        (
            tool(
                "gradebook",
                "Student 2210456, STAT201: coursework 58%, exam 31% (failed), module mark 42%.",
                student="2210456",
            ),
            planted(
                rag(
                    "regs:resit",
                    "A resit exam counts for 100% of the module mark and must reach 35% to pass.",
                )
            ),
            rag("regs:cap", "Resit module marks are capped at 40% on the transcript."),
            rag("regs:extenuating", "Extenuating circumstances claims are due within 5 days."),
            instructions("advisor", "Be encouraging but precise about numbers."),
        ),
        "You need 35% on the resit: it counts for the whole module mark, though your "
        "transcript will show at most 40%.",
    ),
    S(
        "h2-music-lessons",
        "music",
        "How much do I still owe for this term's piano lessons?",
        (
            planted(
                tool(
                    "account_statement",
                    "Account MU-772: 10 lessons booked this term, 6 paid, balance due £96.",
                    account="MU-772",
                )
            ),
            rag("fees:piano", "Piano lessons cost £32 per 30-minute lesson."),
            rag("fees:cancel", "Lessons cancelled with under 24 hours' notice are charged."),
            fact("sibling", "A second child from the same family gets 10% off."),
            llm("The student has 4 unpaid lessons left this term."),
        ),
        "Your balance is £96 for the remaining lessons this term.",
    ),
]

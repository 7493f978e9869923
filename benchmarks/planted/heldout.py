"""Held-out planted-culprit scenarios, written after the evidence scorer's design was settled
and never used to choose anything: the benchmark reports them apart, as a check that the
accuracy on the main corpus is not an artefact of having looked at its misses.
"""

from __future__ import annotations

from scenarios import Scenario, fact, instructions, llm, memory, planted, rag, steering, tool

S = Scenario

HELDOUT: list[Scenario] = [
    S(
        "ho-parking-permit",
        "government",
        "How much is a residential parking permit for my street?",
        (
            tool(
                "address_lookup",
                "22 Quarry Road is in parking zone K; household has 1 registered vehicle.",
                address="22 Quarry Road",
            ),
            planted(
                rag(
                    "fees:parking-2026",
                    "Residential permits in zone K cost £48 per year for the first vehicle.",
                )
            ),
            rag("fees:visitor", "Visitor permits are sold in books of 10 for £12."),
            fact("ev-discount", "Fully electric vehicles receive a 50% permit discount."),
            instructions("council-voice", "Use plain English and give prices in pounds."),
        ),
        "A zone K residents' permit for your first car is £48 a year.",
    ),
    S(
        "ho-coffee-grinder",
        "retail",
        "What grind setting should I use for a French press on my Burr-Max grinder?",
        (
            tool(
                "product_manual",
                "Burr-Max BM-3: 40 grind settings, 1 = finest (espresso), 40 = coarsest.",
                sku="BM-3",
            ),
            planted(
                llm(
                    "From the brew chart: French press works best at setting 8 on the BM-3, a "
                    "fine grind."
                )
            ),
            rag("guide:pour-over", "Pour-over brewing suits a medium-fine grind around 15–18."),
            memory("memory:beans", "The customer buys a dark roast from Colombia."),
            fact("cleaning", "Clean the burrs every two weeks with grinder tablets."),
        ),
        "Use setting 8 on your Burr-Max for French press — a fine grind works best there.",
    ),
    S(
        "ho-visa-processing",
        "travel",
        "How long does the tourist visa take to process?",
        (
            tool(
                "application_status",
                "Application TV-55120: submitted 3 days ago, biometrics done, under review.",
                application="TV-55120",
            ),
            planted(
                tool(
                    "processing_times",
                    "Tourist visa (subclass 600): 90% of applications decided within 4 business "
                    "days.",
                    visa="600",
                )
            ),
            rag("doc:visa-fees", "The tourist visa application fee is 190 AUD, non-refundable."),
            rag("doc:work-visa", "Work visas take 6 to 8 months to process."),
            instructions("gov-neutral", "Do not speculate about individual outcomes."),
        ),
        "Most tourist visas are decided within 4 business days; yours was submitted 3 days "
        "ago and is under review.",
    ),
    S(
        "ho-server-memory",
        "devops",
        "Why did the worker pods get OOM-killed last night?",
        (
            tool(
                "pod_events",
                "worker-7f9c: OOMKilled at 02:14, restarted; worker-2b1d: OOMKilled at 02:16.",
                deployment="worker",
            ),
            planted(
                steering(
                    "capacity-note",
                    "Capacity note: worker pods are limited to 256 MiB of memory; the nightly "
                    "export needs about 1 GiB.",
                )
            ),
            tool(
                "cron_jobs",
                "Nightly jobs: export-reports 02:00, vacuum-db 03:30, rotate-logs 04:00.",
                namespace="prod",
            ),
            rag("runbook:oom", "For OOM kills, compare usage against the container limit."),
            fact("node-pool", "The prod node pool has 6 nodes with 32 GiB each."),
        ),
        "The nightly export at 02:00 needs about 1 GiB, but the worker pods are capped at 256 "
        "MiB, so they were OOM-killed around 02:14–02:16.",
    ),
    S(
        "ho-concert-age",
        "events",
        "Can my 15-year-old come to the Ember Lane concert with me?",
        (
            tool(
                "event",
                "Ember Lane — Northgate Arena, Friday 8 pm, standing and seated tickets.",
                event="ember-lane",
            ),
            planted(
                fact(
                    "venue-age-policy",
                    "Northgate Arena: under-18s are not admitted to evening concerts, even with "
                    "an adult.",
                )
            ),
            rag("doc:bag-policy", "Bags larger than A4 are not allowed into the arena."),
            memory("memory:tickets", "The customer holds 2 seated tickets in block 114."),
            instructions("box-office", "Be friendly and suggest alternatives when saying no."),
        ),
        "I'm afraid not — Northgate Arena doesn't admit anyone under 18 to evening concerts, "
        "even accompanied. You could resell the second seat in block 114.",
    ),
    S(
        "ho-heat-pump",
        "energy",
        "Is there a grant for installing a heat pump in my house?",
        (
            tool(
                "property",
                "Detached house, built 1978, EPC rating D, gas boiler installed 2009.",
                uprn="100023",
            ),
            rag(
                "scheme:insulation",
                "The insulation scheme covers loft and cavity wall insulation for EPC D-G homes.",
            ),
            planted(
                rag(
                    "scheme:heat-pump",
                    "The Boiler Upgrade Scheme gives £2,500 towards an air source heat pump.",
                )
            ),
            fact("installers", "Installers must be certified under MCS for any grant."),
            llm("Checking the property details and the grant schemes that apply."),
        ),
        "Yes — the Boiler Upgrade Scheme gives £2,500 towards an air source heat pump, and you "
        "must use an MCS-certified installer.",
    ),
    S(
        "ho-payroll-date",
        "hr",
        "When will my first paycheck arrive?",
        (
            tool(
                "employee",
                "New hire E-30881, start date 14 October, salaried, direct deposit set up.",
                employee="E-30881",
            ),
            planted(
                memory(
                    "memory:onboarding-chat",
                    "Told the new hire in onboarding chat: pay is issued every Friday.",
                )
            ),
            rag("handbook:benefits", "Benefits start on the first day of the month after hire."),
            fact("holiday", "The office is closed on 28 November."),
        ),
        "You're paid every Friday, so your first paycheck arrives on the Friday after you start "
        "on 14 October.",
    ),
    S(
        "ho-rental-deposit",
        "real-estate",
        "How much deposit will I need for the flat on Canal Street?",
        (
            tool(
                "listing",
                "Flat 3, 41 Canal Street: 1 bedroom, £1,150 per month, available 1 December.",
                listing="41-canal-3",
            ),
            planted(
                tool(
                    "letting_terms",
                    "41 Canal Street lettings: deposit equal to 8 weeks' rent, plus one month in "
                    "advance.",
                    listing="41-canal-3",
                )
            ),
            rag("law:deposit-cap", "Tenancy deposits are capped by law in some regions."),
            fact("viewing", "Viewings for Canal Street run Saturdays 10–12."),
            memory("memory:renter", "The renter has a guarantor."),
        ),
        "The deposit is eight weeks' rent — about £2,120 at £1,150 a month — plus the first "
        "month in advance.",
    ),
    S(
        "ho-drug-interaction",
        "healthcare",
        "Can I take ibuprofen with my blood pressure medication?",
        (
            tool(
                "medications",
                "Active prescriptions: amlodipine 5 mg daily; no allergies recorded.",
                patient="self",
            ),
            planted(
                llm(
                    "Interaction check result: no known interaction between ibuprofen and "
                    "amlodipine; safe to combine."
                )
            ),
            rag("leaflet:ibuprofen", "Ibuprofen: take with food; do not exceed 1,200 mg a day."),
            instructions("clinical-safety", "Suggest confirming with a pharmacist."),
            fact("pharmacy-hours", "The on-site pharmacist is available until 6 pm."),
        ),
        "There's no known interaction between ibuprofen and your amlodipine, so it's safe to "
        "take them together — check with the pharmacist if unsure.",
    ),
    S(
        "ho-phone-upgrade",
        "telecom",
        "Am I eligible for a phone upgrade yet?",
        (
            tool(
                "contract",
                "Line 07700 900123: 24-month contract started 2 May 2024, device Pixel 8.",
                line="07700900123",
            ),
            planted(
                instructions(
                    "upgrade-rule",
                    "Upgrade rule: customers may upgrade once 12 months of the contract are "
                    "complete.",
                )
            ),
            rag("offer:trade-in", "Trade in a Pixel 8 for up to £180 credit."),
            fact("network-status", "5G coverage was extended to the whole city in June."),
        ),
        "Yes — you've completed more than 12 months of your contract, so you can upgrade now, "
        "and your Pixel 8 could be traded in.",
    ),
    S(
        "ho-museum-loan",
        "culture",
        "Where is the Vermeer painting being shown this summer?",
        (
            planted(
                tool(
                    "loan_register",
                    "Loan L-2207: Vermeer 'Girl Reading' to the Aldwick Gallery, 1 June – "
                    "31 August.",
                    work="Girl Reading",
                )
            ),
            rag(
                "collection:vermeer",
                "'Girl Reading' (c. 1658) normally hangs in room 12 of the east wing.",
            ),
            fact("renovation", "The east wing closes for renovation from May to September."),
            rag("doc:touring", "Touring exhibitions are announced in the spring newsletter."),
        ),
        "This summer 'Girl Reading' is on loan to the Aldwick Gallery, from 1 June to 31 August.",
    ),
    S(
        "ho-shipping-cost",
        "logistics",
        "How much will it cost to ship a 12 kg parcel to Norway?",
        (
            tool(
                "rate_quote",
                "Parcel 12 kg to NO: economy 4–6 days, express 2 days; see tariff table.",
                country="NO",
                kg=12,
            ),
            planted(
                tool(
                    "tariff_table",
                    "Zone 3 (incl. Norway), 10–15 kg: economy €24.50, express €41.00.",
                    zone=3,
                )
            ),
            rag("doc:customs-no", "Norway is outside the EU: parcels need a customs declaration."),
            fact("pickup", "Free pickup is available for parcels over 10 kg."),
            instructions("quote-format", "Give prices in euros with delivery times."),
        ),
        "Shipping 12 kg to Norway costs €24.50 by economy (4–6 days) or €41.00 express (2 "
        "days), and you'll need a customs declaration.",
    ),
]
